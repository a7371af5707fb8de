/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Preloaded into Debian 12's linux.uml (6.1) by tests/kernel/uml-run: lets
 * it run on hosts whose XSAVE area is larger than the one it was built for.
 *
 * UML keeps each of its threads' FPU state in a fixed 832-byte buffer
 * (struct _xstate: legacy area, header, AVX) and moves it to and from the
 * host process it runs that thread in with PTRACE_GETREGSET/SETREGSET
 * (NT_X86_XSTATE). The host answers a short GETREGSET with the first bytes,
 * but refuses a SETREGSET that is not exactly its whole XSAVE area with
 * EFAULT. On a CPU with AVX-512 or AMX the area is 2-11 kB, so the guest
 * dies before its init runs ("userspace - ptrace set fp regs failed, errno
 * = 14", then "Attempted to kill init!").
 *
 * Here each UML buffer (one per UML thread, so its address names the
 * thread) gets a shadow of the host's whole size: a short GETREGSET reads
 * the whole area into the shadow and gives UML its part; a short SETREGSET
 * lays UML's part over the shadow and writes the whole area. The state UML
 * cannot hold (AVX-512, AMX) thus stays with the thread it belongs to
 * instead of leaking between threads that share a host process. Every
 * other ptrace call goes straight through.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

#define XSTATE_BV_OFFSET 512    /* the XSAVE header's first word: which components hold data */
#define SHADOWS 4096            /* UML threads alive at once, far above what a test guest runs */
#define PROBE_SIZE 65536        /* above any XSAVE area a CPU has today */

typedef long (*ptrace_fn)(int request, pid_t pid, void *addr, void *data);

typedef struct Shadow {
        const void *key;        /* UML's buffer */
        unsigned char *area;    /* host_size bytes */
} Shadow;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Shadow shadows[SHADOWS];
static size_t host_size;        /* 0: not known yet */

static ptrace_fn real_ptrace(void) {
        static ptrace_fn fn;

        if (!fn)
                fn = (ptrace_fn) dlsym(RTLD_NEXT, "ptrace");
        return fn;
}

/* The XSAVE components that lie wholly within the first len bytes of the
 * standard-format area: x87 and SSE (the legacy area), and each further
 * component whose CPUID offset and size end within it. Asked once per
 * length: CPUID traps to the hypervisor in a virtual machine, tens of
 * microseconds each, and UML writes its registers on every switch. */
static uint64_t components_within(size_t len) {
        static size_t known_len;
        static uint64_t known_mask;
        uint64_t mask = len >= XSTATE_BV_OFFSET ? 3 : 0;

        if (known_len == len)
                return known_mask;

        for (unsigned i = 2; i < 63; i++) {
                unsigned size, offset, ecx, edx;

                if (!__get_cpuid_count(0xd, i, &size, &offset, &ecx, &edx) || size == 0)
                        continue;
                if ((size_t) offset + size <= len)
                        mask |= UINT64_C(1) << i;
        }
        known_len = len;
        known_mask = mask;
        return mask;
}

/* Learns the host's regset size from a GETREGSET into a buffer larger than
 * any: the kernel answers with the size it filled. */
static int learn_host_size(pid_t pid) {
        struct iovec iov;
        void *buf;

        if (host_size)
                return 0;
        buf = calloc(1, PROBE_SIZE);
        if (!buf)
                return -ENOMEM;
        iov = (struct iovec) { .iov_base = buf, .iov_len = PROBE_SIZE };
        if (real_ptrace()(PTRACE_GETREGSET, pid, (void *) NT_X86_XSTATE, &iov) < 0) {
                int e = errno;
                free(buf);
                return -e;
        }
        host_size = iov.iov_len;
        free(buf);
        return 0;
}

/* The shadow of UML's buffer key, created (empty) when there is none; a
 * full table reuses a slot, whose thread then starts from the host's
 * current state (as a new thread does). */
static Shadow *shadow_of(const void *key, int *ret_new) {
        size_t h = ((uintptr_t) key >> 4) % SHADOWS;

        for (size_t n = 0; n < SHADOWS; n++) {
                Shadow *s = &shadows[(h + n) % SHADOWS];

                if (s->key == key) {
                        *ret_new = 0;
                        return s;
                }
                if (!s->key) {
                        s->area = calloc(1, host_size);
                        if (!s->area)
                                return NULL;
                        s->key = key;
                        *ret_new = 1;
                        return s;
                }
        }
        shadows[h].key = key;
        *ret_new = 1;
        return &shadows[h];
}

static long get_whole(pid_t pid, unsigned char *area) {
        struct iovec whole = { .iov_base = area, .iov_len = host_size };

        return real_ptrace()(PTRACE_GETREGSET, pid, (void *) NT_X86_XSTATE, &whole);
}

/* A GETREGSET or SETREGSET of NT_X86_XSTATE shorter than the host's area. */
static long short_xstate(int request, pid_t pid, struct iovec *iov) {
        unsigned char *uml = iov->iov_base;
        size_t len = iov->iov_len;
        Shadow *s;
        int fresh;
        long r;

        s = shadow_of(uml, &fresh);
        if (!s) {
                errno = ENOMEM;
                return -1;
        }
        if (request == PTRACE_GETREGSET) {
                r = get_whole(pid, s->area);
                if (r < 0)
                        return r;
                memcpy(uml, s->area, len);
                return r;
        }

        /* SETREGSET: the components UML holds from its buffer, the rest
         * from the shadow (or, for a buffer never read, the host's). */
        uint64_t within = components_within(len), kept_bv, uml_bv, bv;

        if (fresh && (r = get_whole(pid, s->area)) < 0)
                return r;
        memcpy(&kept_bv, s->area + XSTATE_BV_OFFSET, sizeof(kept_bv));
        memcpy(s->area, uml, len);
        memcpy(&uml_bv, uml + XSTATE_BV_OFFSET, sizeof(uml_bv));
        bv = (uml_bv & within) | (kept_bv & ~within);
        memcpy(s->area + XSTATE_BV_OFFSET, &bv, sizeof(bv));

        struct iovec whole = { .iov_base = s->area, .iov_len = host_size };
        return real_ptrace()(PTRACE_SETREGSET, pid, (void *) NT_X86_XSTATE, &whole);
}

long ptrace(enum __ptrace_request request, ...) {
        va_list ap;
        pid_t pid;
        void *addr, *data;
        long r;

        va_start(ap, request);
        pid = va_arg(ap, pid_t);
        addr = va_arg(ap, void *);
        data = va_arg(ap, void *);
        va_end(ap);

        if ((request != PTRACE_GETREGSET && request != PTRACE_SETREGSET) || (uintptr_t) addr != NT_X86_XSTATE ||
            !data)
                return real_ptrace()(request, pid, addr, data);

        struct iovec *iov = data;

        pthread_mutex_lock(&lock);
        r = learn_host_size(pid);
        if (r < 0) {
                pthread_mutex_unlock(&lock);
                errno = (int) -r;
                return -1;
        }
        if (iov->iov_len >= host_size || iov->iov_len < XSTATE_BV_OFFSET + 64) {
                pthread_mutex_unlock(&lock);
                return real_ptrace()(request, pid, addr, data);
        }
        r = short_xstate(request, pid, iov);
        pthread_mutex_unlock(&lock);
        return r;
}
