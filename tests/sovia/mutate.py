#!/usr/bin/env python3
"""mutate.py: the seeded bugs of tests/sovia/mutations.sh, applied to copies of esm/sovia.

    mutate.py --list                  one line per mutant: NAME MODEL PROPERTY
    mutate.py NAME SRCDIR OUTDIR      writes the mutated system into OUTDIR (endpoint A is
                                      mutated and endpoint B regenerated from it, so both ends
                                      carry the bug, unless the mutant is one-sided); of the
                                      properties, keeps only the one
                                      that names the bug, so Spin checks that one alone
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mkpeer  # noqa: E402

MODELS = {  # model -> (shared file, endpoint A file, endpoint B file)
    "conn": ("conn.esm", "conn_a.esm", "conn_b.esm"),
    "window": ("window.esm", "win_a.esm", "win_b.esm"),
}

# name, model, property that must fail, file, [(old, new, occurrences)], what the bug is.
# The bug goes into endpoint A and, unless ONE_SIDED lists it, into B too.
ONE_SIDED = {"wakeup_lost"}  # with both WAKEUPs lost, both sides just wait: a plain deadlock
MUTANTS = [
    ("fin_without_credit", "conn", "descriptor_posted", "conn_a.esm",
     [("on a_close [queued == 0 && credit > 0] / credit -= 1; a_post(FIN) -> FinWait1;",
       "on a_close [queued == 0] / a_post(FIN) -> FinWait1;", 1)],
     "FIN goes out without a credit, before the ACK that frees a peer descriptor"),
    ("finack_never_sent", "conn", "closed_after_close", "conn_a.esm",
     [("finack_owed = true -> CloseWait;", "finack_owed = false -> CloseWait;", 1)],
     "the passive side never answers FIN with FINACK"),
    ("descriptor_not_reposted", "conn", "descriptor_posted", "conn_a.esm",
     [("/ pop(a_cq, rx); push(a_rq, true); credit += rx / KINDS; rx = 0 -> Normal;",
       "/ pop(a_cq, rx); credit += rx / KINDS; rx = 0 -> Normal;", 1)],
     "the descriptor an ACK used is not re-posted"),
    ("wakeup_lost", "conn", "close_thread_takes_only_wakeup", "conn_a.esm",
     [("credit -= 1; a_post(WAKEUP)", "credit -= 1", 2)],
     "A's WAKEUP is lost (B's is not), so B's close thread keeps the completion queue"),
    ("close_thread_stops_acking", "conn", "closed_after_close", "conn_a.esm",
     [("rx = 0; dack += 1;\n        if (dack >= T) { a_post(ACK + KINDS * dack); dack = 0 } -> FinWait1;",
       "rx = 0; dack += 1; -> FinWait1;", 2),
      ("rx = 0; dack += 1;\n        if (dack >= T) { a_post(ACK + KINDS * dack); dack = 0 } -> FinWait2;",
       "rx = 0; dack += 1; -> FinWait2;", 1)],
     "after close the close thread takes DATA but no longer acknowledges it"),
    ("fin_before_flush", "conn", "no_data_after_fin", "conn_a.esm",
     [("on a_close [queued == 0 && credit > 0]", "on a_close [credit > 0]", 1),
      ("  yield state FinWait1 {\n",
       "  yield state FinWait1 {\n    when [queued > 0 && credit > 0]\n"
       "      / queued -= 1; credit -= 1; a_post(DATA + KINDS * dack); dack = 0 -> FinWait1;\n", 1)],
     "FIN goes out while data is queued, and the close thread sends that data after it"),
    ("queued_data_dropped", "conn", "close_loses_no_data", "conn_a.esm",
     [("on a_close [queued == 0 && credit > 0]", "on a_close [credit > 0]", 1)],
     "close sends FIN while data is still queued, which is then never sent"),
    ("ack_threshold_off_by_one", "window", "descriptors_posted", "win_a.esm",
     [("if (dack >= T)", "if (dack >= T - 1)", 1)],
     "explicit ACK after T-1 messages: more ACK packets than the W/T descriptors for them"),
    ("window_descriptor_not_reposted", "window", "descriptors_posted", "win_a.esm",
     [("/ pop(a_cq, rx); posted -= 1; posted += 1; credit += rx % ACKS / KINDS; rx = 0 -> Run;",
       "/ pop(a_cq, rx); posted -= 1; credit += rx % ACKS / KINDS; rx = 0 -> Run;", 1)],
     "the descriptor an ACK used is not re-posted"),
    ("piggyback_lost", "window", "every_message_received", "win_a.esm",
     [("a_post(DATA + KINDS * dack + ACKS * m); dack = 0", "a_post(DATA + ACKS * m); dack = 0", 1)],
     "the delayed ACKs are cleared but not piggybacked on the DATA"),
    ("data_taken_for_ack", "window", "in_order_exactly_once", "win_a.esm",
     [("when [!empty(a_cq) && head(a_cq) % KINDS == ACK]",
       "when [!empty(a_cq) && (head(a_cq) % KINDS == ACK || head(a_cq) % ACKS / KINDS > 0)]", 1)],
     "a DATA carrying piggybacked ACKs may be decoded as an ACK, and its payload dropped"),
]

PROP = re.compile(r"^(always|eventually|leadsto|reachable)\s+([A-Za-z0-9_]+)\s*:.*?;[^\n]*\n?",
                  re.M | re.S)


def keep_only(text, prop):
    names = [m.group(2) for m in PROP.finditer(text)]
    if prop not in names:
        sys.exit("mutate: no property %s" % prop)
    return PROP.sub(lambda m: m.group(0) if m.group(2) == prop else "", text)


def copy(model, src, out):
    os.makedirs(out, exist_ok=True)
    files = {}
    for f in MODELS[model]:
        with open(os.path.join(src, f)) as fh:
            files[f] = fh.read()
    return files


def write(files, model, out, peer_of=None):
    shared, a, b = MODELS[model]
    files[b] = mkpeer.peer(files[a] if peer_of is None else peer_of)
    for f, text in files.items():
        with open(os.path.join(out, f), "w") as fh:
            fh.write(text)


def main():
    args = sys.argv[1:]
    if args == ["--list"]:
        for name, model, prop, *_ in MUTANTS:
            print(name, model, prop)
        return
    if len(args) != 3:
        sys.exit(__doc__)
    name, src, out = args
    m = [x for x in MUTANTS if x[0] == name]
    if not m:
        sys.exit("mutate: no mutant %s" % name)
    _, model, prop, f, edits, _ = m[0]
    files = copy(model, src, out)
    original = files[f]
    for old, new, count in edits:
        n = files[f].count(old)
        if n != count:
            sys.exit("mutate: %s: %r occurs %d times in %s, expected %d" % (name, old, n, f, count))
        files[f] = files[f].replace(old, new)
    shared = MODELS[model][0]
    files[shared] = keep_only(files[shared], prop)
    write(files, model, out, original if name in ONE_SIDED else None)


if __name__ == "__main__":
    main()
