import CSystem
import Foundation

/// What a worker does to itself before it reads a byte of any image: it can gain no
/// privileges, leaves no core files, dies with its parent, and (once libvips is up) cannot
/// start programs or open network sockets. The parent starts it with a minimal environment
/// (`WorkerSpawn`).
enum WorkerHygiene {
    /// Applied first thing in the worker.
    static func apply() {
        _ = tg_sys_set_name("thumbgen-worker")
        _ = tg_sys_no_new_privileges()
        _ = tg_sys_not_dumpable()
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &none)
        watchParent()
    }

    /// Keeps what the worker's allocations free for its next image, rather than handing it back
    /// to the kernel and faulting it in again: a worker decodes on one thread, where glibc
    /// trimmed the heap after every image (6,783 `brk` and 2,895 `madvise` calls, and 40 times
    /// the page faults of an in-process run, over 2,006 small JPEGs). Blocks up to 16 MiB come
    /// from the heap and up to 32 MiB of it may stay unused; larger ones (a wallpaper's
    /// decode) still go back at once, so that two workers do not hold more than one process
    /// would (128 MiB kept made the wallpaper run's tree 553 MiB against 395 in process).
    static func keepFreedMemory() {
        _ = tg_sys_keep_freed_memory(32 << 20, 16 << 20, 4 << 20)
    }

    /// A worker whose parent is gone exits: even one stuck inside C, on a thread of its own.
    /// (`PR_SET_PDEATHSIG` fires when the parent *thread* that started it ends, which an
    /// operation queue's threads do; the parent's pid is what is watched instead.)
    private static func watchParent() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent { usleep(200_000) }
            _exit(1)
        }
    }

    /// A seccomp filter, after libvips has started (its start-up may probe things): the calls
    /// a decoder has no business making fail with EPERM. A deny list rather than an allow list,
    /// because the calls libvips' dependencies make change between versions; what it denies is
    /// what turns a decoder bug into an attack: running programs, the network, other
    /// processes' memory, namespaces and mounts.
    static func restrictSystemCalls() {
        let denied: [Int32] = [
            tg_sys_nr_execve(), tg_sys_nr_execveat(), tg_sys_nr_socket(), tg_sys_nr_connect(),
            tg_sys_nr_bind(), tg_sys_nr_listen(), tg_sys_nr_ptrace(), tg_sys_nr_process_vm_writev(),
            tg_sys_nr_process_vm_readv(), tg_sys_nr_mount(), tg_sys_nr_unshare(), tg_sys_nr_setns(),
            tg_sys_nr_bpf(), tg_sys_nr_kexec_load(),
        ]
        _ = denied.withUnsafeBufferPointer { tg_sys_deny_syscalls($0.baseAddress, Int32($0.count)) }
    }
}
