#!/usr/bin/env python3
"""tests/faults/cm_limits.py: nicd's connection manager under misuse (issue 16, defect 6),
against a private nicd started with --idle-ms 300:
  - 300 idle connections do not lock others out: a new client is served at once, and the
    idle ones are closed after the idle time; a client blocked in WAIT is not;
  - a client that pipelines thousands of requests and reads no reply neither blocks another
    client nor nicd: it is closed;
  - numbers are parsed strictly (no wrap, no sign, no hex);
  - names longer than 79 characters resolve exactly (never as a shorter prefix)."""
import os, socket, subprocess, sys, tempfile, time

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL " + what)


def conn(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s


def ask(s, line, timeout=5.0):
    s.settimeout(timeout)
    s.sendall(line.encode() + b"\n")
    out = b""
    while not out.endswith(b"\n"):
        b = s.recv(4096)
        if not b:
            return "<closed>"
        out += b
    return out.decode().strip()


def closed_by_peer(s, timeout):
    s.settimeout(timeout)
    try:
        while True:
            b = s.recv(4096)
            if not b:
                return True
    except (socket.timeout, BlockingIOError):
        return False
    except OSError:
        return True


def main():
    run = tempfile.mkdtemp(prefix="cm-limits-")
    long_a = "a" * 79
    long_b = "b" * 150
    with open(os.path.join(run, "hosts"), "w") as f:
        f.write("%s 1\n%s 0\nnic0 0\nnic1 1\n" % (long_a, long_b))
    nicd = subprocess.Popen([os.environ.get("NICD", "build/bin/nicd"), "-n", "2", "--run", run,
                             "--prefix", "/cml%d-nic" % os.getpid(), "--idle-ms", "300"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sock = os.path.join(run, "nicd.sock")
    try:
        for _ in range(200):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        # numbers
        s = conn(sock)
        check(ask(s, "STATS 1").startswith("OK "), "STATS 1")
        for bad in ("STATS 4294967296", "STATS 4294967297", "STATS -1", "STATS 0x1", "STATS 1x",
                    "STATS +0", "STATS 99999999999999999999", "DISCONNECT 0 4294967297"):
            r = ask(s, bad)
            check(r.startswith("ERR INVAL") or r.startswith("ERR NONIC") and "4294967296" not in bad,
                  "%s refused: %s" % (bad, r))
        check(ask(s, "STATS 4294967296").startswith("ERR INVAL"), "STATS 2^32 is not node 0")
        # names
        check(ask(s, "RESOLVE " + long_b) == "OK 0", "a 150-character name resolves")
        check(ask(s, "RESOLVE " + long_a) == "OK 1", "a 79-character name resolves")
        check(ask(s, "RESOLVE " + "a" * 100).startswith("ERR NOMATCH"),
              "a 100-character name is not its 79-character prefix")
        check(ask(s, "RESOLVE " + "c" * 300) in ("<closed>",) or
              ask(conn(sock), "PING").startswith("OK"), "an over-long line does not hurt nicd")
        s.close()
        # 300 idle connections
        idle = []
        for _ in range(300):
            try:
                idle.append(conn(sock))
            except OSError:
                break
        w = conn(sock)
        w.sendall(b"WAIT 0 beef\n")          # blocked: must outlive the idle time
        t0 = time.monotonic()
        fresh = conn(sock)
        r = ask(fresh, "PING", 2.0)
        check(r.startswith("OK nicd"), "a new client is served beside 300 idle ones (%s, %.0f ms)"
              % (r, (time.monotonic() - t0) * 1000))
        time.sleep(0.8)
        gone = sum(1 for c in idle[:50] if closed_by_peer(c, 0.5))
        check(gone == 50, "idle connections closed after the idle time (%d of 50)" % gone)
        r = ask(w, "WAIT 0 beef", 3.0)   # still open, its first WAIT still outstanding
        check(r.startswith("ERR BUSY"), "the waiting client kept its WAIT past the idle time: " + r)
        for c in idle:
            c.close()
        # a pipelining client that reads nothing
        hog = conn(sock)
        hog.setblocking(False)
        sent = 0
        t0 = time.monotonic()
        while time.monotonic() - t0 < 1.0 and sent < 4 << 20:   # until nicd stops taking them
            try:
                sent += hog.send(b"PING\n" * 50)
            except BlockingIOError:
                time.sleep(0.01)
            except OSError:
                break
        t0 = time.monotonic()
        other = conn(sock)
        r = ask(other, "PING", 3.0)
        check(r.startswith("OK nicd"), "another client is served while one pipelines %d bytes (%.0f ms)"
              % (sent, (time.monotonic() - t0) * 1000))
        check(closed_by_peer(hog, 5.0), "the client that reads no replies is closed")
        check(ask(conn(sock), "PING").startswith("OK nicd"), "nicd still serves")
    finally:
        nicd.terminate()
        nicd.wait()
        subprocess.call(["rm", "-rf", run])
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
