"""Case files, xz-compressed, each under its own CC BY 4.0 licence (see the file's header):

- ``case2868rte``, ``case6515rte``, ``case9241pegase``, ``case13659pegase``: MATPOWER's ``data/``
  (https://github.com/MATPOWER/matpower, commit 95d5a6f), the files paper 003 names ("from the
  MATPOWER [46] ... benchmark", Section 6.1; their generator counts, 600 and 1,389 rows, match
  Table 4, PGLib's versions have one row fewer);
- ``pglib_opf_case5_pjm``, ``pglib_opf_case14_ieee``: PGLib-OPF v23.07
  (https://github.com/power-grid-lib/pglib-opf, commit dc6be4b), the tiny cases of CI.

Read them with :func:`gpubench.problems.opf.matpower.load`."""
