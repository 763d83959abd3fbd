"""journal_records.py -- the ok records of an autotune journal, for the
benchmark scripts of tests/bench (README, "Journal" for the format)."""


def ok_records(path, with_final=True):
    """Yields (kernel, size, config, time_ns, detail) for every ok record.
    with_final=False leaves out the final re-timings of the winners."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            col = line.rstrip("\n").split("\t")
            if len(col) < 5 or col[3] != "ok":
                continue
            detail = col[9] if len(col) > 9 else ""
            if detail == "final" and not with_final:
                continue
            yield col[0], col[1], col[2], float(col[4]), detail
