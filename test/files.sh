#!/bin/sh
# The test files as `npm test` runs them, two at a time. Node 20's test runner sorts the files it
# is given by path (createTestFileList), so they run in name order whatever order is listed here
# (a longest-first list stood here, and was run in name order all the same). Three at a time took
# under 2 % off on two cores: not worth the risk to the timing-bound tests.
find test -name '*.test.ts' | sort
