"""One declarative experiment per published table (installed as ``gpubench.experiments``)."""
