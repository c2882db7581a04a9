"""bench/turn_phases.py's turn recognition, on a hand-written trace (run by ctest: bench_tools)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import turn_phases  # noqa: E402


def line(comm, tid, at_us, kind, call, rest):
    return f"  {comm} {tid} {at_us / 1e6:.6f}: syscalls:sys_{kind}_{call}: {rest}\n"


def one_turn(start, client=0x1F, upstream=0x21, asleep=False):
    """A turn on I/O thread 10 and committer 20, its marks at start + fixed offsets (us)."""
    io, commit = ("ag-io-1", 10), ("ag-commit", 20)
    rows = [
        line(*io, start, "enter", "recvmsg", f"fd: {client:#x}, msg: 0x0, flags: 0x0"),
        line(*io, start + 1, "exit", "recvmsg", "0xf9"),
        line(*io, start + 40, "enter", "sendmsg", f"fd: {upstream:#x}, msg: 0x0, flags: 0x4000"),
        line(*io, start + 42, "exit", "sendmsg", "0x129"),
        # nothing there yet: a read that would block is not the reply
        line(*io, start + 43, "enter", "recvmsg", f"fd: {upstream:#x}, msg: 0x0, flags: 0x0"),
        line(*io, start + 44, "exit", "recvmsg", "0xfffffffffffffff5"),
        line(*io, start + 140, "enter", "recvmsg", f"fd: {upstream:#x}, msg: 0x0, flags: 0x0"),
        line(*io, start + 141, "exit", "recvmsg", "0x174"),
    ]
    if asleep:
        rows += [line(*io, start + 160, "enter", "futex", "uaddr: 0x1, op: 0x81, val: 0x1"),
                 line(*commit, start + 175, "exit", "futex", "0x0")]
    rows += [
        line(*commit, start + 181, "enter", "fcntl", "fd: 0x6, cmd: 0x6, arg: 0x0"),
        line(*commit, start + 182, "exit", "fcntl", "0x0"),
        line(*commit, start + 240, "enter", "fcntl", "fd: 0x6, cmd: 0x6, arg: 0x0"),
        line(*commit, start + 241, "exit", "fcntl", "0x0"),
        line(*io, start + 261, "enter", "sendmsg", f"fd: {client:#x}, msg: 0x0, flags: 0x4000"),
        line(*io, start + 265, "exit", "sendmsg", "0x15c"),
    ]
    return rows


def span(turn, start, end):
    return round(turn[end] - turn[start])


def test_each_turns_marks_come_from_its_own_sockets_and_the_committers_locks(tmp_path):
    trace = tmp_path / "trace.txt"
    trace.write_text("".join(one_turn(1000) + one_turn(2000, asleep=True)))
    turns = list(turn_phases.turns(str(trace)))
    assert len(turns) == 2
    first, second = turns
    assert span(first, "request_read", "upstream_sent") == 39
    assert span(first, "upstream_sent", "reply_read") == 101
    assert span(first, "reply_read", "commit_begins") == 40
    assert span(first, "commit_begins", "commit_ends") == 60
    assert span(first, "commit_ends", "answer_sent") == 20
    assert "woken" not in first
    assert span(second, "asleep", "woken") == 15


def test_a_turn_without_a_commit_is_not_counted(tmp_path):
    rows = [r for r in one_turn(1000) if "ag-commit" not in r]
    trace = tmp_path / "trace.txt"
    trace.write_text("".join(rows + one_turn(2000)))
    assert len(list(turn_phases.turns(str(trace)))) == 1
