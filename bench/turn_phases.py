"""Where a one-connection turn's time goes on the server, from the syscalls it makes.

Reads `perf script -F comm,tid,time,event,trace` of syscall tracepoints recorded from agentgate
(bench/turn_vs_nginx.sh with PHASES=1 records them) and prints, per phase, the median and p90 over
the turns it recognised:

  request read -> upstream request sent     the I/O thread's work before the model call
  upstream round trip                       the model call on the wire (the instant upstream)
  reply read -> commit begins               reading the reply, building the commit, the hand-off
  commit                                    the committer's first to last lock of the store file
  commit ends -> answer sent                the hand-off back, rendering, the write

A turn is recognised on an I/O thread as: a read of N > 0 bytes from socket A, a send on socket
B != A, a read of > 0 bytes from B, a send on A; the commit is the committer thread's `fcntl`
calls (SQLite's locks) between the reply and the answer. It also prints how often the committer
was asleep when the turn handed its commit over (it had to be woken with a futex call).

    python3 bench/turn_phases.py PERF_SCRIPT_OUTPUT
"""
import re
import sys

LINE = re.compile(r"\s*(\S+)\s+(\d+)\s+([\d.]+):\s+syscalls:sys_(enter|exit)_(\w+):\s*(.*)")
FD = re.compile(r"fd: (0x[0-9a-f]+)")


def events(path):
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                comm, tid, at, kind, call, rest = m.groups()
                yield comm, int(tid), float(at) * 1e6, kind, call, rest


def turns(path):
    """Yields each recognised turn as a dict of phase marks (microseconds)."""
    io = {}  # tid -> the turn being followed on that I/O thread
    entered = {}  # tid -> (call, fd) of the socket call it is in
    committing = []  # turns waiting for their commit's lock calls
    for comm, tid, at, kind, call, rest in events(path):
        if comm.startswith("ag-commit"):
            for turn in committing:
                if call == "futex" and kind == "exit" and "asleep" in turn and "woken" not in turn:
                    turn["woken"] = at
                if call == "fcntl":
                    if kind == "enter":
                        turn.setdefault("commit_begins", at)
                    else:
                        turn["commit_ends"] = at
            continue
        if call in ("recvmsg", "sendmsg") and kind == "enter":
            entered[tid] = (call, int(FD.search(rest).group(1), 16))
            if call == "sendmsg":
                fd = entered[tid][1]
                turn = io.get(tid)
                if turn and "upstream" not in turn and fd != turn["client"]:
                    turn["upstream"] = fd
                    turn["upstream_sent"] = at
                elif turn and "reply_read" in turn and fd == turn["client"]:
                    turn["answer_sent"] = at
                    if turn in committing:
                        committing.remove(turn)
                    del io[tid]
                    if "commit_begins" in turn:
                        yield turn
            continue
        if call == "recvmsg" and kind == "exit" and tid in entered:
            _, fd = entered.pop(tid)
            size = int(rest.strip(), 16)
            if size <= 0 or size >= 1 << 63:
                continue
            turn = io.get(tid)
            if turn and turn.get("upstream") == fd and "reply_read" not in turn:
                turn["reply_read"] = at
                committing.append(turn)
            elif not turn or "upstream" not in turn:
                io[tid] = {"client": fd, "request_read": at}
            continue
        if call == "futex" and kind == "enter" and tid in io:
            turn = io[tid]
            if "reply_read" in turn and "commit_begins" not in turn and "asleep" not in turn:
                turn["asleep"] = at  # the committer is woken (or a log line handed over)


def main():
    seen = list(turns(sys.argv[1]))
    if len(seen) < 10:
        print(f"turn phases: only {len(seen)} turns recognised in the trace")
        return
    phases = [
        ("request read -> upstream request sent", "request_read", "upstream_sent"),
        ("upstream round trip", "upstream_sent", "reply_read"),
        ("reply read -> commit begins", "reply_read", "commit_begins"),
        ("commit (first to last lock call)", "commit_begins", "commit_ends"),
        ("commit ends -> answer sent", "commit_ends", "answer_sent"),
        ("server time (request read -> answer sent)", "request_read", "answer_sent"),
    ]
    print(f"turn phases at one connection ({len(seen)} turns; syscall tracing adds about 1 us a call):")
    for name, start, end in phases:
        spans = sorted(t[end] - t[start] for t in seen if start in t and end in t)
        if spans:
            print(f"  {name:44s} median {spans[len(spans) // 2]:6.1f} us   p90 "
                  f"{spans[int(len(spans) * 0.9)]:6.1f} us")
    woken = [t for t in seen if "woken" in t]
    print(f"  committer asleep at the hand-off in {100 * len(woken) / len(seen):.0f}% of turns")


if __name__ == "__main__":
    main()
