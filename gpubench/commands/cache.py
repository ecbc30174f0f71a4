"""``gpubench cache [clear]``: show or clear the cache of generated code and compiled kernels."""
from ..errors import InputError

NAME = "cache"
HELP = "show the cache of generated code and compiled kernels (folder, entries, size), or clear it"


def add_arguments(p):
    p.add_argument("action", nargs="?", default="show", help="show (the default) or clear")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _size(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def run(args):
    import json

    from ..forms import cache
    if args.action not in ("show", "clear"):
        raise InputError(f"cache: unknown action {args.action!r} (show or clear)")
    if args.action == "clear":
        try:
            entries, size = cache.clear()
        except OSError as exc:
            raise InputError(f"cache: cannot clear {cache.folder()}: {exc.strerror or exc}")
        if args.json:
            print(json.dumps({"folder": str(cache.folder()), "removed_entries": entries, "removed_bytes": size}))
        else:
            print(f"cleared {cache.folder()}: {entries} entries, {_size(size)}")
        return 0
    s = cache.summary()
    if args.json:
        print(json.dumps(s))
        return 0
    print(f"{s['folder']}: {s['entries']} entries, {_size(s['bytes'])}")
    for kind, count in s["kinds"].items():
        if count:
            print(f"  {kind}: {count}")
    if "numba_cache_dir" in s:
        print(f"  (numba's compiled code goes to NUMBA_CACHE_DIR={s['numba_cache_dir']}, not counted)")
    return 0
