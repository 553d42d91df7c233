"""The sandbox's seccomp filter: the system calls a candidate has no use for fail with EPERM.

A classic BPF program of some fifty instructions, written here rather than through
libseccomp (a system library and a binding to install for what this builds): bwrap loads it from a descriptor (`--seccomp FD`) just before it
runs the command, after its own set-up, with no_new_privs set. Denied:

- new namespaces of any kind: `unshare`, `setns`, and `clone` with a CLONE_NEW* flag
  (`clone3`, whose flags sit in memory a filter cannot read, answers ENOSYS, so that the
  C library falls back to `clone`);
- mounting: `mount`, `umount2`, `pivot_root` and the new mount API (`open_tree`,
  `move_mount`, `fsopen`, `fsconfig`, `fsmount`, `fspick`, `mount_setattr`);
- the kernel's keyrings (`keyctl`, `add_key`, `request_key`), `io_uring`, `ptrace`,
  `process_vm_readv`/`writev`, `userfaultfd`, `perf_event_open`, `bpf`, kernel modules and
  `kexec`;
- another process's descriptors and kernel objects (`pidfd_getfd`: the collector's status
  pipe; `kcmp`), `personality`, `memfd_secret`, `modify_ldt`;
- sockets of the kernel's netlink and of virtual machines' vsock (`socket(AF_NETLINK)`,
  `socket(AF_VSOCK)`);
- every system call of another ABI (x32, or i386 through `int 0x80`).

Only x86-64 has a filter: elsewhere `program()` returns None and the sandbox runs without
one (docs/runs.md says so, and the run record's limits_enforced_by names it).
"""

from __future__ import annotations

import platform
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_SYSCALL_BIT = 0x40000000

# x86-64 system call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
DENIED_X86_64 = {
    "ptrace": 101, "pivot_root": 155, "mount": 165, "umount2": 166, "init_module": 175, "delete_module": 176,
    "kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272, "perf_event_open": 298,
    "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311, "finit_module": 313, "kexec_file_load": 320,
    "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "personality": 135, "modify_ldt": 154, "kcmp": 312, "pidfd_getfd": 438,
    "memfd_secret": 447,
}  # fmt: skip
SOCKET_X86_64 = 41
DENIED_SOCKET_FAMILIES = {"AF_NETLINK": 16, "AF_VSOCK": 40}
CLONE_X86_64 = 56
CLONE3_X86_64 = 435
CLONE_NEW_FLAGS = (
    0x00020000  # CLONE_NEWNS
    | 0x02000000  # CLONE_NEWCGROUP
    | 0x04000000  # CLONE_NEWUTS
    | 0x08000000  # CLONE_NEWIPC
    | 0x10000000  # CLONE_NEWUSER
    | 0x20000000  # CLONE_NEWPID
    | 0x40000000  # CLONE_NEWNET
    | 0x00000080  # CLONE_NEWTIME
)

# Classic BPF (linux/filter.h, linux/seccomp.h).
LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JGE_K = 0x35  # BPF_JMP | BPF_JGE | BPF_K
JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
RET_K = 0x06  # BPF_RET | BPF_K
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
EPERM, ENOSYS = 1, 38
NR, ARCH, ARG0 = 0, 4, 16  # offsets in struct seccomp_data (args[0]'s low half, little-endian)


def program() -> bytes | None:
    """The filter as bwrap reads it (struct sock_filter, in order), or None off x86-64."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return None
    deny, enosys, allow = "deny", "enosys", "allow"
    code: list[tuple[int, str | int, str | int, int]] = [  # (code, jump if true, jump if false, k)
        (LD_W_ABS, 0, 0, ARCH),
        (JEQ_K, 0, deny, AUDIT_ARCH_X86_64),
        (LD_W_ABS, 0, 0, NR),
        (JGE_K, deny, 0, X32_SYSCALL_BIT),
        *((JEQ_K, deny, 0, number) for number in sorted(DENIED_X86_64.values())),
        (JEQ_K, enosys, 0, CLONE3_X86_64),
        (JEQ_K, "socket", 0, SOCKET_X86_64),
        (JEQ_K, 0, allow, CLONE_X86_64),
        (LD_W_ABS, 0, 0, ARG0),
        (JSET_K, deny, allow, CLONE_NEW_FLAGS),
    ]
    socket_at = len(code)  # socket(family, ...): the family is args[0]
    code += [(LD_W_ABS, 0, 0, ARG0), *((JEQ_K, deny, 0, family) for family in DENIED_SOCKET_FAMILIES.values())]
    labels = {"socket": socket_at, allow: len(code), deny: len(code) + 1, enosys: len(code) + 2}
    code += [
        (RET_K, 0, 0, SECCOMP_RET_ALLOW),
        (RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM),
        (RET_K, 0, 0, SECCOMP_RET_ERRNO | ENOSYS),
    ]
    packed = []
    for at, (op, true, false, k) in enumerate(code):
        jumps = [labels[j] - at - 1 if isinstance(j, str) else j for j in (true, false)]
        assert all(0 <= j < 256 for j in jumps), "a jump past what classic BPF can reach"
        packed.append(struct.pack("=HBBI", op, jumps[0], jumps[1], k))
    return b"".join(packed)
