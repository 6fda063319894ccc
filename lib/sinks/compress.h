/*
 * compress.h - gzip compression of rotated files, on a thread of its own.
 *
 * Why a thread: compressing a file takes a second or more for a large one;
 * neither a caller nor the back end (which must keep the files' buffers
 * moving) may wait for it.
 */
#ifndef XLOG_COMPRESS_H
#define XLOG_COMPRESS_H

/* Starts the compressor thread, or counts one more user of the running
 * one (each set of files that compresses is one); 0 or -errno. */
int xlog_compress_start(void);

/* Queues the compression of the file open as fd (read-only; the job owns it
 * from now on), which is known by one of the names base.first ... base.keep
 * (base itself for first = 0): rotation may move it along that chain while
 * it waits or is being compressed.  It is started no sooner than delay_ms
 * from now, so that other processes still writing to it have noticed the
 * rotation.  The result is <name>.gz; <name> is removed.  If the file has no
 * name in the chain by then (retention removed it), nothing is done. */
void xlog_compress_queue(const char *base, unsigned first, int fd, unsigned keep,
                         unsigned delay_ms);

/* One user fewer; after the last, finishes every queued job (waiting for
 * the delay of each) and ends the thread. */
void xlog_compress_stop(void);

#endif
