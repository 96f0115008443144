/* The video module's one exported symbol (video_module.h): the table of
 * its reader's and writer's functions, looked up by librod (video.c)
 * after it opens the module. */
#include "config.h"
#include "track/video_codec.h"
#include "track/video_module.h"

__attribute__((visibility("default")))
const rod_video_module rod_video_module_table = {
    .version = ROD_VIDEO_MODULE_VERSION,
    .size = sizeof(rod_video_module),
    .library_version = ROD_VERSION,
    .open = video_open,
    .info = video_get_info,
    .read = video_read,
    .frame_count = video_frame_count,
    .close = video_close,
    .writer_open = video_writer_open,
    .writer_add = video_writer_add,
    .writer_close = video_writer_close,
    .default_codec = video_default_codec};
