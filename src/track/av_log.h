/* FFmpeg's log, kept instead of printed: the library never prints, but
 * the last error line FFmpeg logged explains a failure best ("Invalid NAL
 * unit size"), so it goes into the rod_error message. In the video module
 * (video_module.h). */
#ifndef ROD_TRACK_AV_LOG_H
#define ROD_TRACK_AV_LOG_H

/* Route FFmpeg's log (a process-wide setting) to a per-thread buffer of
 * the last error line; once per process. */
void rod_av_log_capture(void);

/* The last error line logged by this thread since rod_av_clear_log ("" if
 * none), without its trailing newline. */
const char *rod_av_last_log(void);
void rod_av_clear_log(void);

#endif
