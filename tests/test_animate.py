"""validation/animate.py on a short run: a GIF (PillowWriter) and, where
Debian's ffmpeg is installed, an H.264 MP4 (FFMpegWriter), each with the
frames and size that animate.py reports. Skipped (77) without
python3-h5py or python3-matplotlib."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import h5py  # noqa: F401
    import matplotlib  # noqa: F401
    from PIL import Image
except ImportError as e:
    print("skipped:", e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
ANIMATE = os.path.join(HERE, "..", "validation", "animate.py")
DATA = os.environ.get("RODSIM_DATA", os.path.join(HERE, "..", "data"))


def animate(run, out, *extra):
    """Run animate.py; the frame count and fps it reports."""
    p = subprocess.run([sys.executable, ANIMATE, run, "-o", out, *extra],
                       capture_output=True, text=True, check=True)
    m = re.search(r"\((\d+) frames at (\d+) fps", p.stdout)
    assert m, p.stdout
    return int(m.group(1)), int(m.group(2))


def main():
    failed = 0
    with tempfile.TemporaryDirectory(prefix="rodsim_animate_") as tmp:
        run = os.path.join(tmp, "run.h5")
        subprocess.run([os.environ["RODSIM"], "run",
                        os.path.join(DATA, "scenarios", "weight_release.ini"),
                        "-o", run, "--set", "time.duration=0.1", "-q"],
                       check=True, stdout=subprocess.DEVNULL)
        # 0.1 s at 4x slow motion and 30 fps: 12 frames after t = 0
        gif = os.path.join(tmp, "run.gif")
        frames, fps = animate(run, gif, "--speed", "0.25", "--dpi", "50")
        with Image.open(gif) as im:
            n, size = im.n_frames, im.size
        ok = fps == 30 and frames == n == 13 and size == (400, 320)
        print(f"gif: {n} frames of {size}, reported {frames} at {fps} fps",
              "ok" if ok else "FAILED")
        failed += not ok
        if shutil.which("ffmpeg") and shutil.which("ffprobe"):
            mp4 = os.path.join(tmp, "run.mp4")
            frames, fps = animate(run, mp4, "--speed", "0.25", "--dpi", "50")
            p = subprocess.run(
                ["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                 "stream=codec_name,nb_read_frames,width,height", "-of",
                 "csv=p=0", mp4], capture_output=True, text=True, check=True)
            codec, w, h, n = p.stdout.strip().split(",")
            ok = (codec == "h264" and int(n) == frames == 13
                  and (w, h) == ("400", "320"))
            print(f"mp4: {codec} {w}x{h}, {n} frames, reported {frames}",
                  "ok" if ok else "FAILED")
            failed += not ok
    print(f"{2 - failed if shutil.which('ffmpeg') else 1 - failed} passed, "
          f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
