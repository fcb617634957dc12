#!/usr/bin/python3
"""fake-scpi.py - a fake SCPI power meter for the scpi plug-in's tests.

  fake-scpi.py --tcp PORTFILE [options]     listen on 127.0.0.1, port -> PORTFILE
  fake-scpi.py --pty PATHFILE [options]     open a pseudo-terminal, slave path -> PATHFILE

Answers each line equal to --query (default MEAS:POW?) with --value (default
12.5), after --delay-ms.  Other lines get no answer (as a meter that only
queues an error).  Options to misbehave:
  --silent-after N   stop answering after N answers (keeps the connection)
  --garbage          answer "garbage" instead of a number
  --drop-after N     close the TCP connection after every N answers
  --counting         answer 1, 2, 3, ... (the answer's number)
  --alternate A,B    answer A in even periods of --period-ms (default 2) and B
                     in odd ones, as a meter updating every period (mean power
                     (A+B)/2)
  --values A,B,...   answer A, then B, ... (as given: 9.91E37 is SCPI's NaN),
                     the last one again and again
  --energy           integrate: answer the energy (J) counted since the meter
                     started at --value W (MEAS:ENER? with --query), as a
                     power analyzer's counter
  --step-after N     after N answers the power is --step-value W, and stays
  --bad-every N      every Nth answer misbehaves as --bad says (hostile meters)
  --bad-at N,M,...   those answers (numbered from 1, the handshake's too)
                     misbehave as --bad says
  --bad TEXT         what a misbehaving answer is: TEXT as it is (9.9E37, NaN,
                     inf, 0x10, 1e30, 500), or with --energy "+D" / "-D": the
                     count D J off, the next one right again
  --extra            send an unrequested line "extra" after every answer
  --garbage-after N  after N answers, answer bytes that are no number (control
                     characters, bytes >= 0x80, 100 bytes long)
  --stream-after N   (TCP) after N answers on a connection, send reading after
                     reading without pause, unasked, until the client goes away
  --endless-after N  (TCP) the same, but one endless line without a newline
  --late-every N     every Nth answer leaves --late-ms MS (30) after its
                     reading was taken (a network or a loaded machine's delay)
  --log FILE         write "queries=N streams=S answers=M" there after every
                     query and stream (--energy: and "first=J last=J", the
                     true counts of the first and the last answer, "last_t=S"
                     when the last was taken, CLOCK_MONOTONIC, and "watts=W"
                     the power then)
Runs until killed (SIGTERM).  TCP accepts one client at a time, again and again.
"""
import argparse
import os
import select
import signal
import socket
import sys
import time
import tty


# what --garbage-after answers: an error text with a control character, a
# byte that is not UTF-8, a quote and a backslash, longer than a message quotes
GARBAGE = b'-113,"Undefined header"\x01\xff\'\\' + b"x" * 70


class Meter:
    def __init__(self, args):
        self.args = args
        self.queries = 0
        self.answers = 0
        self.streams = 0
        self.buf = b""
        self.watts = float(args.value) if args.energy else 0.0
        self.since = time.monotonic()
        self.counted = 0.0      # J until self.since (--energy)
        self.first = self.last = None   # --energy: the true counts answered first and last
        self.last_t = None  # and when the last was taken (CLOCK_MONOTONIC s)

    def count(self):
        """The energy counted until now (--energy)."""
        return self.counted + self.watts * (time.monotonic() - self.since)

    def step(self):
        """--step-after: the power changes for good."""
        if self.args.step_after is not None and self.answers == self.args.step_after + 1:
            if self.args.energy:
                self.counted = self.count()
                self.since = time.monotonic()
                self.watts = float(self.args.step_value)
            else:
                self.args.value = self.args.step_value

    def bad(self, value):
        """The answer a misbehaving meter gives instead of value, or None."""
        n = self.answers
        if not ((self.args.bad_every and n % self.args.bad_every == 0) or
                (self.args.bad_at and n in self.args.bad_at)):
            return None
        text = self.args.bad
        if self.args.energy and text[:1] in "+-":
            return repr(float(value) + float(text))
        return text

    def answer(self, data):
        """Bytes to send back for the received data."""
        out = b""
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            line = line.strip().decode(errors="replace")
            if line != self.args.query:
                continue
            self.queries += 1
            if self.args.silent_after is not None and self.answers >= self.args.silent_after:
                self.log()
                continue
            if self.args.delay_ms:
                time.sleep(self.args.delay_ms / 1000)
            self.answers += 1
            self.step()
            value = self.answers if self.args.counting else self.args.value
            if self.args.energy:
                value = repr(self.count())
                self.first = self.first if self.first is not None else value
                self.last = value
                self.last_t = time.monotonic()
            if self.args.alternate:
                period = int(time.monotonic() * 1000 / self.args.period_ms)
                value = self.args.alternate[period % 2]
            if self.args.values:
                value = self.args.values[min(self.answers, len(self.args.values)) - 1]
            value = self.bad(value) or value
            if self.args.late_every and self.answers % self.args.late_every == 0:
                time.sleep(self.args.late_ms / 1000)  # the reading ages on the way
            if self.args.garbage:
                out += b"garbage\n"
            elif self.args.garbage_after is not None and self.answers > self.args.garbage_after:
                out += GARBAGE + b"\r\n"
            else:
                out += f"{value}\r\n".encode()
            if self.args.extra:
                out += b"extra\n"
            self.log()
        return out

    def log(self):
        if self.args.log:
            with open(self.args.log + ".tmp", "w") as f:
                counts = (
                    f" first={self.first} last={self.last} last_t={self.last_t!r}"
                    f" watts={self.watts!r}" if self.args.energy else ""
                )
                f.write(
                    f"queries={self.queries} streams={self.streams} "
                    f"answers={self.answers}{counts}\n"
                )
            os.replace(self.args.log + ".tmp", self.args.log)


def publish(path, text):
    with open(path + ".tmp", "w") as f:
        f.write(text + "\n")
    os.replace(path + ".tmp", path)


def serve_tcp(meter, portfile):
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    publish(portfile, str(srv.getsockname()[1]))
    while True:
        conn, _ = srv.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        meter.buf = b""
        served = meter.answers
        try:
            while True:
                data = conn.recv(4096)
                if not data:
                    break
                out = meter.answer(data)
                if out:
                    conn.sendall(out)
                done = meter.answers - served
                if meter.args.drop_after and done >= meter.args.drop_after:
                    break
                if meter.args.stream_after is not None and done >= meter.args.stream_after:
                    stream(meter, conn, b"12.5\r\n" * 1000)
                    break
                if meter.args.endless_after is not None and done >= meter.args.endless_after:
                    stream(meter, conn, b"1" * 8192)
                    break
        except OSError:
            pass        # the client went away mid-answer: wait for the next
        conn.close()


def stream(meter, conn, chunk):
    """Send chunk after chunk, unasked, until the client goes away."""
    meter.streams += 1
    meter.log()
    while True:
        conn.sendall(chunk)     # OSError when the client closed: the caller's


def serve_pty(meter, pathfile):
    master, slave = os.openpty()
    tty.setraw(slave)
    # keep the slave open, so the master never sees a hang-up between clients
    publish(pathfile, os.ttyname(slave))
    while True:
        select.select([master], [], [])
        try:
            data = os.read(master, 4096)
        except OSError:
            time.sleep(0.01)
            continue
        out = meter.answer(data)
        try:
            if out:
                os.write(master, out)
        except OSError:
            pass


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--tcp", metavar="PORTFILE")
    where.add_argument("--pty", metavar="PATHFILE")
    p.add_argument("--query", default="MEAS:POW?")
    p.add_argument("--value", default="12.5")
    p.add_argument("--delay-ms", type=float, default=0)
    p.add_argument("--silent-after", type=int)
    p.add_argument("--garbage", action="store_true")
    p.add_argument("--drop-after", type=int)
    p.add_argument("--counting", action="store_true")
    p.add_argument("--values", type=lambda v: v.split(","))
    p.add_argument("--alternate", type=lambda v: v.split(","))
    p.add_argument("--period-ms", type=float, default=2)
    p.add_argument("--extra", action="store_true")
    p.add_argument("--energy", action="store_true")
    p.add_argument("--step-after", type=int)
    p.add_argument("--step-value", default="0")
    p.add_argument("--bad-every", type=int)
    p.add_argument("--bad-at", type=lambda v: [int(x) for x in v.split(",")])
    p.add_argument("--bad", default="9.9E37")
    p.add_argument("--garbage-after", type=int)
    p.add_argument("--stream-after", type=int)
    p.add_argument("--endless-after", type=int)
    p.add_argument("--late-every", type=int)
    p.add_argument("--late-ms", type=float, default=30)
    p.add_argument("--log")
    args = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    meter = Meter(args)
    if args.tcp:
        serve_tcp(meter, args.tcp)
    else:
        serve_pty(meter, args.pty)


if __name__ == "__main__":
    main()
