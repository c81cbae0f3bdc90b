#!/usr/bin/env python3
# tests/eudp/dgram_check.py: datagram semantics as an unmodified Python program sees them,
# run under the shim on both sides (apps.sh). server PORT: answers; client HOST PORT: checks.
import os, select, socket, sys

def server(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", port))
    while True:
        data, peer = s.recvfrom(70000)
        if data == b"quit":
            s.sendto(b"bye", peer)
            return
        if data.startswith(b"burst "):           # send N datagrams of sizes back, one each
            for n in data.split()[1:]:
                s.sendto(bytes((i * 7 + int(n)) % 251 for i in range(int(n))), peer)
            continue
        s.sendto(data, peer)                     # echo

def client(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    fails = 0
    def check(cond, what):
        nonlocal fails
        print(("ok   " if cond else "FAIL ") + what, flush=True)
        fails += 0 if cond else 1
    s.settimeout(5)
    # echo with data checked, the peer named
    msg = os.urandom(1000)
    s.sendto(msg, (host, port))
    data, peer = s.recvfrom(70000)
    check(data == msg and peer == (host, port), "echo of 1000 B, sender named %s" % (peer,))
    # a datagram > MTU arrives whole
    big = os.urandom(60000)
    s.sendto(big, (host, port))
    data, _ = s.recvfrom(70000)
    check(data == big, "60000 B datagram echoed whole (%d B)" % len(data))
    # boundaries: three datagrams stay three
    s.sendto(b"burst 10 3000 1", (host, port))
    got = [len(s.recvfrom(70000)[0]) for _ in range(3)]
    check(got == [10, 3000, 1], "three datagrams stay three: %s" % got)
    # MSG_TRUNC: a short buffer gets the front, the flag, and the rest of the datagram is gone
    s.sendto(b"burst 5000 7", (host, port))
    data, anc, flags, _ = s.recvmsg(100)
    want = bytes((i * 7 + 5000) % 251 for i in range(5000))
    check(len(data) == 100 and data == want[:100] and flags & socket.MSG_TRUNC,
          "recvmsg into 100 B: MSG_TRUNC, the front (%d B, flags %#x)" % (len(data), flags))
    data = s.recv(70000)
    check(len(data) == 7, "the next receive gets the next datagram (%d B)" % len(data))
    # recv(MSG_TRUNC) returns the datagram's real length
    s.sendto(b"burst 2000", (host, port))
    r = s.recv_into(bytearray(10), 10, socket.MSG_TRUNC)
    check(r == 2000, "recv(MSG_TRUNC) returns the real length (%d)" % r)
    # non-blocking: nothing there -> EAGAIN; select and poll see a datagram coming
    s.setblocking(False)
    try:
        s.recv(100)
        check(False, "non-blocking receive with nothing there")
    except BlockingIOError:
        check(True, "non-blocking receive with nothing there: EAGAIN")
    s.sendto(b"x" * 33, (host, port))
    r, _, _ = select.select([s], [], [], 5)
    check(r == [s], "select sees the echo")
    p = select.poll(); p.register(s, select.POLLIN)
    check(any(ev & select.POLLIN for _, ev in p.poll(5000)), "poll sees the echo")
    ep = select.epoll(); ep.register(s.fileno(), select.EPOLLIN)
    check(len(ep.poll(5)) == 1, "epoll sees the echo")
    check(s.recv(100) == b"x" * 33, "and it is the echo")
    s.setblocking(True)
    s.settimeout(5)
    # a connected socket
    c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    c.settimeout(5)
    c.connect((host, port))
    c.send(b"connected")
    check(c.recv(100) == b"connected" and c.getpeername() == (host, port), "connected send/recv, getpeername")
    c.close()
    # bound to the wildcard address and port 0 first, then connected (as dig and many
    # resolvers' clients do): the socket moves to the NIC at connect
    c = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    c.settimeout(5)
    c.bind(("0.0.0.0", 0))
    c.connect((host, port))
    c.send(b"bound first")
    check(c.recv(100) == b"bound first", "bound to 0.0.0.0:0, then connected: send/recv")
    c.close()
    s.sendto(b"quit", (host, port))
    check(s.recv(10) == b"bye", "server quits")
    return fails

if __name__ == "__main__":
    if sys.argv[1] == "server":
        server(int(sys.argv[2]))
    else:
        sys.exit(1 if client(sys.argv[2], int(sys.argv[3])) else 0)
