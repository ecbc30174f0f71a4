"""Reports: the builder, its layouts, the verdicts, and the compare, certify and interoperability pages."""
