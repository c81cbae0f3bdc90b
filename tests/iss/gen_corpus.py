#!/usr/bin/env python3
"""gen_corpus.py: a deterministic corpus of LANai instruction words covering every encoding
class of LANAI-ISA.md section 4: each class's structural fields (op, F/H, P/Q, BBB, JJJJJ,
YL/E, Y/S/E, condition, discriminator bits) enumerated in full, registers drawn from the
special ones (r0, r1, pc) and ordinary ones, immediates from edge values and random ones.
Prints one hex word per line."""
import random
import sys

rnd = random.Random(14)
REGS = [0, 1, 2, 3, 4, 5, 8, 15, 31]

def reg():
    return rnd.choice(REGS + [rnd.randrange(32)])

def imm16():
    return rnd.choice([0, 1, 2, 4, 0x7fff, 0x8000, 0xfffc, 0xffff, rnd.randrange(0x10000)])

def words():
    out = []
    # RI: every op, F, H
    for op in range(8):
        for f in range(2):
            for h in range(2):
                for _ in range(6):
                    out.append(op << 28 | reg() << 23 | reg() << 18 | f << 17 | h << 16 | imm16())
    # RM: load/store, P, Q, offsets of the increment forms
    for s in range(2):
        for p in range(2):
            for q in range(2):
                for k in [0, 4, 0xfffc, 2, 0xfffe, 1, 0xffff, 8, 0x7fff, 0x8000]:
                    out.append((8 | s) << 28 | reg() << 23 | reg() << 18 | p << 17 | q << 16 | k)
    # RRM: load/store, P, Q, BBB, JJJJJ, YL, E
    for s in range(2):
        for p in range(2):
            for q in range(2):
                for bbb in range(8):
                    for j in range(32) if bbb == 7 else [0, rnd.randrange(1, 32)]:
                        for yle in range(8):
                            out.append((0xa | s) << 28 | reg() << 23 | reg() << 18 | p << 17 |
                                       q << 16 | reg() << 11 | bbb << 8 | j << 3 | yle)
    # RR: BBB, JJJJJ, F, condition; register jumps and moves
    for bbb in range(8):
        for j in range(32):
            for f in range(2):
                for cc in range(16):
                    if j not in (0, 0x10, 0x18) and cc > 1:
                        continue
                    ddd, i = cc >> 1, cc & 1
                    out.append(0xc << 28 | reg() << 23 | reg() << 18 | f << 17 | i << 16 |
                               reg() << 11 | bbb << 8 | j << 3 | ddd)
    for bbb in range(8):
        for cc in range(16):
            for rd, rs1, rs2 in [(2, 0, 3), (2, 3, 0), (2, 3, 9), (3, 9, 0), (2, 0, 0)]:
                out.append(0xc << 28 | rd << 23 | rs1 << 18 | (cc & 1) << 16 | rs2 << 11 |
                           bbb << 8 | cc >> 1)
    # special: every OP, F, stray bits
    for opc in range(8):
        for f in range(2):
            for extra in [0, 8, 0x8000, 0x10000]:
                out.append(0xd << 28 | reg() << 23 | reg() << 18 | f << 17 | extra | opc)
    # BR / BRR / SCC
    for cc in range(16):
        ddd, i = cc >> 1, cc & 1
        for tgt in [0, 4, 0x1000, 0x1fffffc, rnd.randrange(0x800000) * 4]:
            out.append(0xe << 28 | ddd << 25 | (tgt & 0x1fffffc) | i)
        for b23 in range(2):
            for stray in [0, 4, 0x10000]:
                out.append(0xe << 28 | ddd << 25 | b23 << 23 | reg() << 18 | stray | 2 | i)
                out.append(0xe << 28 | ddd << 25 | 1 << 24 | b23 << 23 | reg() << 18 |
                           rnd.choice([0, 0x10000, 0x20000]) | (imm16() & 0xfffc) | 2 | i)
    # SLS / SLI / SPLS: every discriminator, Y/S/E/P/Q
    for b in range(8):
        for _ in range(4):
            out.append(0xf << 28 | reg() << 23 | reg() << 18 | b << 15 | rnd.randrange(0x8000))
    for yse in range(8):
        for p in range(2):
            for q in range(2):
                for k in [0, 1, 2, 0x3ff, 0x3fe, 0x200, rnd.randrange(0x400)]:
                    out.append(0xf << 28 | reg() << 23 | reg() << 18 | 3 << 16 | yse << 12 |
                               p << 11 | q << 10 | k)
    # special words (LANAI-ISA.md 4.9) and random words
    out += [0, 1, 2, 3, 4, 5, 6, 7, 0x15000000, 0x8116fffc, 0xe100000a]
    out += [rnd.getrandbits(32) for _ in range(3000)]
    return out

for w in words():
    print("%08x" % (w & 0xffffffff))
