"""atune_files.py -- autotune's journals and profiles as the benchmark
scripts of tests/bench read them (docs/formats.md for the
formats)."""


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


def profile_sections(path):
    """[(kernel, size, {key: value})] for every section of a profile but
    [device]."""
    secs, cur = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in ";#":
                continue
            if line.startswith("["):
                name = line[1:-1]
                cur = None
                if name != "device":
                    kernel, _, size = name.partition(" ")
                    cur = {}
                    secs.append((kernel, size, cur))
            elif cur is not None and "=" in line:
                k, _, v = line.partition("=")
                cur[k.strip()] = v.strip()
    return secs
