"""``gpubench methods [NAME] [--json]``: the registered methods, their backends and settings."""
import json

NAME = "methods"
HELP = "list the methods, their backends and settings"


def add_arguments(p):
    p.add_argument("method", nargs="?", help="show one method's settings in full")
    p.add_argument("--json", action="store_true", help="print JSON")


def run(args):
    from .. import methods
    chosen = [methods.get(args.method)] if args.method else methods.all_methods()
    rows = [m.describe() for m in chosen]
    if args.json:
        print(json.dumps(rows if not args.method else rows[0], indent=1))
        return 0
    if not args.method:
        w = max(len(r["name"]) for r in rows)
        for r in rows:
            kind = "rigorous" if r["rigorous"] else "heuristic"
            print(f"{r['name'].ljust(w)}  {kind:9s}  {','.join(r['backends']):9s}  {r['summary']}")
            if r.get("available") is False:
                print(f"{''.ljust(w)}  unavailable: {', '.join(r['missing'])} not installed ({r['install']})")
        print("(`gpubench methods NAME` lists a method's settings)")
        return 0
    r = rows[0]
    print(f"{r['name']}: {r['summary']}")
    print(f"  {'rigorous' if r['rigorous'] else 'heuristic'}; backends: {', '.join(r['backends'])}")
    if r["source"]:
        print(f"  source: {r['source']}")
    if r.get("requires"):
        state = "installed" if r["available"] else f"unavailable: {', '.join(r['missing'])} not installed"
        print(f"  needs {', '.join(r['requires'])} ({state}; {r['install']})")
    print("  settings (gpubench minimize ... --set KEY=VALUE):")
    for s in r["settings"]:
        extra = f"; one of {', '.join(map(str, s['choices']))}" if s["choices"] else ""
        extra += "; fixed" if s["fixed"] else ""
        print(f"    {s['name']} ({s['type']}, default {s['default']!r}){extra}: {s['help']}")
    return 0
