// The few Linux calls the worker processes need that Swift cannot make itself: prctl is
// variadic, and glibc declares posix_spawn_file_actions_addclosefrom_np only under
// _GNU_SOURCE, which the Glibc module is not built with. Every shim is one call; policy lives
// in Swift (Sources/Thumbgen/Executing/Workers/WorkerSpawn.swift and WorkerHygiene.swift).
#ifndef THUMBGEN_CSYSTEM_SHIM_H
#define THUMBGEN_CSYSTEM_SHIM_H

#include <spawn.h>
#include <sys/prctl.h>
#include <linux/seccomp.h>
#include <linux/filter.h>
#include <linux/audit.h>
#include <sys/syscall.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <malloc.h>

/// glibc 2.34 and later (Debian 12 has 2.36).
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// Declared by <unistd.h> only under _GNU_SOURCE.
extern int pipe2(int fds[2], int flags);

/// A pipe whose two ends close on exec: only the descriptors a spawn maps (3 and 4) reach a
/// worker.
static inline int tg_sys_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

/// Closes every descriptor from `from` up in the spawned child, so that none of the parent's
/// files, sockets or pipes leak into a worker.
static inline int tg_sys_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// No execve from here on can gain privileges (setuid bits, file capabilities); also the
/// precondition for an unprivileged seccomp filter.
static inline int tg_sys_no_new_privileges(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

/// The process's name in `ps` and /proc (16 bytes at most): a worker started through
/// /proc/self/exe would otherwise be called "exe".
static inline int tg_sys_set_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

/// No core files from a crashing decoder, and no ptrace attach by other processes of the
/// same user.
static inline int tg_sys_not_dumpable(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

/// Installs a seccomp filter that makes the listed system calls fail with EPERM and lets every
/// other call through (a deny list: the decoders' own calls vary by library version, an allow
/// list would break on the next libheif). `count` entries of `numbers`.
static inline int tg_sys_deny_syscalls(const int *numbers, int count) {
    if (count < 0 || count > 60) return -1;
    struct sock_filter program[4 + 60 * 2 + 1];
    int n = 0;
    // A call from another architecture's ABI (x32, i386 on x86_64) is refused outright.
    program[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
#if defined(__x86_64__)
    program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
#elif defined(__aarch64__)
    program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0);
#else
    return -1;
#endif
    program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    program[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (int i = 0; i < count; i++) {
        program[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)numbers[i], 0, 1);
        program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    }
    program[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog filter = { .len = (unsigned short)n, .filter = program };
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter, 0, 0);
}

/// glibc malloc's thresholds: freed memory below `trim` bytes stays with the process, blocks
/// up to `mmap` bytes come from the heap (and so are reused), and the heap grows `pad` bytes
/// beyond each request. Returns 1 when all three were taken.
static inline int tg_sys_keep_freed_memory(int trim, int mmap, int pad) {
    return mallopt(M_TRIM_THRESHOLD, trim) && mallopt(M_MMAP_THRESHOLD, mmap) && mallopt(M_TOP_PAD, pad);
}

/// System call numbers of this architecture, which Swift cannot read from the macros.
static inline int tg_sys_nr_execve(void) { return SYS_execve; }
static inline int tg_sys_nr_execveat(void) { return SYS_execveat; }
static inline int tg_sys_nr_socket(void) { return SYS_socket; }
static inline int tg_sys_nr_connect(void) { return SYS_connect; }
static inline int tg_sys_nr_bind(void) { return SYS_bind; }
static inline int tg_sys_nr_listen(void) { return SYS_listen; }
static inline int tg_sys_nr_ptrace(void) { return SYS_ptrace; }
static inline int tg_sys_nr_process_vm_writev(void) { return SYS_process_vm_writev; }
static inline int tg_sys_nr_process_vm_readv(void) { return SYS_process_vm_readv; }
static inline int tg_sys_nr_mount(void) { return SYS_mount; }
static inline int tg_sys_nr_unshare(void) { return SYS_unshare; }
static inline int tg_sys_nr_setns(void) { return SYS_setns; }
static inline int tg_sys_nr_bpf(void) { return SYS_bpf; }
static inline int tg_sys_nr_kexec_load(void) { return SYS_kexec_load; }

#endif
