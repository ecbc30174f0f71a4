"""Running cases: experiments loaded, resources checked, cases claimed, run, certified and recorded."""
