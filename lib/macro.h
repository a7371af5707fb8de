/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Small helpers shared by every part of tbsd: cleanup attributes, ownership
 * transfer and array sizes, in the manner of systemd's macro.h. */
#pragma once

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _pure_ __attribute__((pure))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Hand ownership of *p to the caller: returns the pointer and clears the
 * variable so its cleanup handler does nothing. */
#define TAKE_PTR(p)                         \
        ({                                  \
                __typeof__(p) _tp_ = (p);   \
                (p) = NULL;                 \
                _tp_;                       \
        })

#define TAKE_FD(fd)                         \
        ({                                  \
                int _tf_ = (fd);            \
                (fd) = -1;                  \
                _tf_;                       \
        })

/* Defines func##p(type *p) that calls func(*p) when *p is not NULL. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func)     \
        static inline void func##p(type *p) {       \
                if (*p)                             \
                        func(*p);                   \
        }

static inline void freep(void *p) {
        free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

/* free() that returns NULL, for "p = mfree(p);" */
static inline void *mfree(void *p) {
        free(p);
        return NULL;
}

static inline void closep(int *fd) {
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}
#define _cleanup_close_ _cleanup_(closep)

/* Turns a libc-style -1/errno result into -errno. */
static inline int negative_errno(void) {
        return errno > 0 ? -errno : -EIO;
}
