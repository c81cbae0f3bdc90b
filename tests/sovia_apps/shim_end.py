#!/usr/bin/env python3
"""tests/sovia_apps/shim_end.py: how a process's end looks to its peers, as plain Python
sockets programs have it, run under the SOVIA shim by shim_end.sh.

  shim_end.py exit PORT FILE HOW      accept one connection, send FILE, end with HOW:
                                      close_exit (sendall, close, os._exit), nb_exit
                                      (non-blocking sends after select, close, os._exit),
                                      open_exit (sendall, os._exit with the socket open)
  shim_end.py spawn PORT FILE         accept one connection, send half of FILE, run a program
                                      that does not exist (a vfork child that _exits), send
                                      the rest, close
  shim_end.py daemon PORT N HOW       listen, fork; the parent ends at once (HOW: exit or
                                      _exit), the child accepts N connections, each answered
                                      "hello I"
  shim_end.py forking PORT FILE N     socketserver.ForkingTCPServer (children end with
                                      os._exit) sending FILE to each of N connections
  shim_end.py prefork PORT W K        a prefork server: the parent listens and keeps W worker
                                      processes, each accepting K connections (answering each
                                      line in capitals) and then exiting, replaced at once (a
                                      worker recycled, as Apache's MaxConnectionsPerChild does)
  shim_end.py unread PORT             accept one connection, close it without reading what came
  shim_end.py linger0 PORT            accept one connection, send "bye", close with SO_LINGER
                                      {1, 0}
  shim_end.py pushy HOST PORT         connect, send a line, then read: prints "RECV <result>",
                                      then send for at most 3 s: "SEND <result>" (an errno
                                      name, or "ok" if every send succeeded)
  shim_end.py get HOST PORT           connect, read to the end: prints "EOF <bytes> <sha256>"
                                      or "ERR <errno name> <bytes>"
  shim_end.py burst HOST PORT N P     N connections, P at a time, each sending "hello I" and
                                      reading the answer: prints "ANSWERED <n>" and the first
                                      failures
"""
import errno
import hashlib
import os
import select
import socket
import socketserver
import struct
import subprocess
import sys
import threading
import time


def listener(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(8)
    return s


def send_exit(port, path, how):
    data = open(path, "rb").read()
    c, _ = listener(port).accept()
    if how == "nb_exit":
        c.setblocking(False)
        off = 0
        while off < len(data):
            select.select([], [c], [])
            try:
                off += c.send(data[off:off + 65536])
            except BlockingIOError:
                pass
    else:
        c.sendall(data)
    if how != "open_exit":
        c.close()
    os._exit(0)


def spawn(port, path):
    data = open(path, "rb").read()
    c, _ = listener(port).accept()
    half = len(data) // 2
    c.sendall(data[:half])
    try:
        subprocess.run(["/nonexistent/shim-end-program"])
    except OSError:
        pass
    c.sendall(data[half:])
    c.close()


def daemon(port, n, how):
    s = listener(port)
    if os.fork() > 0:
        if how == "exit":
            sys.exit(0)
        os._exit(0)
    os.setsid()
    for i in range(n):
        c, _ = s.accept()
        c.sendall(b"hello %d" % i)
        c.close()


def forking(port, path, n):
    data = open(path, "rb").read()

    class Handler(socketserver.BaseRequestHandler):
        def handle(self):
            self.request.sendall(data)

    socketserver.ForkingTCPServer.allow_reuse_address = True
    with socketserver.ForkingTCPServer(("0.0.0.0", port), Handler) as srv:
        for _ in range(n):
            srv.handle_request()


def prefork(port, workers, per_child):
    s = listener(port)

    def spawn_worker():
        if os.fork() == 0:
            for _ in range(per_child):
                c, _ = s.accept()
                c.sendall(c.recv(100).upper())
                c.close()
            os._exit(0)

    for _ in range(workers):
        spawn_worker()
    while True:
        os.wait()
        spawn_worker()


def burst(host, port, n, par):
    answered, errors, lock = [0], [], threading.Lock()
    ids = iter(range(n))

    def client():
        while True:
            with lock:
                i = next(ids, None)
            if i is None:
                return
            want = b"HELLO %d" % i
            try:
                with socket.create_connection((host, port), timeout=20) as c:
                    c.sendall(b"hello %d" % i)
                    got = c.recv(100)
                ok = got == want
                why = repr(got)
            except OSError as e:
                ok, why = False, errno.errorcode.get(e.errno, str(e))
            with lock:
                if ok:
                    answered[0] += 1
                elif len(errors) < 5:
                    errors.append("%d: %s" % (i, why))

    threads = [threading.Thread(target=client) for _ in range(par)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("ANSWERED", answered[0], " ".join(errors))


def unread(port):
    c, _ = listener(port).accept()
    time.sleep(0.5)
    c.close()


def linger0(port):
    c, _ = listener(port).accept()
    c.sendall(b"bye")
    c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()
    time.sleep(1)


def name(e):
    return errno.errorcode.get(e.errno, str(e.errno))


def pushy(host, port):
    c = socket.create_connection((host, port))
    c.sendall(b"nobody reads this\n")
    time.sleep(1)
    try:
        print("RECV", repr(c.recv(100)))
    except OSError as e:
        print("RECV", name(e))
    end, res = time.time() + 3, "ok"
    while time.time() < end and res == "ok":
        try:
            c.send(b"x" * 1000)
            time.sleep(0.01)
        except OSError as e:
            res = name(e)
    print("SEND", res, flush=True)


def get(host, port):
    c = socket.create_connection((host, port))
    h, n = hashlib.sha256(), 0
    try:
        while True:
            d = c.recv(1 << 20)
            if not d:
                print("EOF", n, h.hexdigest())
                return
            h.update(d)
            n += len(d)
    except OSError as e:
        print("ERR", errno.errorcode.get(e.errno, e.errno), n)


def main():
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == "exit":
        send_exit(int(a[0]), a[1], a[2])
    elif cmd == "spawn":
        spawn(int(a[0]), a[1])
    elif cmd == "daemon":
        daemon(int(a[0]), int(a[1]), a[2])
    elif cmd == "forking":
        forking(int(a[0]), a[1], int(a[2]))
    elif cmd == "prefork":
        prefork(int(a[0]), int(a[1]), int(a[2]))
    elif cmd == "unread":
        unread(int(a[0]))
    elif cmd == "linger0":
        linger0(int(a[0]))
    elif cmd == "pushy":
        pushy(a[0], int(a[1]))
    elif cmd == "get":
        get(a[0], int(a[1]))
    elif cmd == "burst":
        burst(a[0], int(a[1]), int(a[2]), int(a[3]))
    else:
        sys.exit("unknown command " + cmd)


main()
