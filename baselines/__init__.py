"""Heuristic and local methods compared with the rigorous solver (installed as ``gpubench.baselines``)."""
