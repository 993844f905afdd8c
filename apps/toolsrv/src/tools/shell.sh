#!/bin/sh
# ollie:tool shell
# ollie:description Run a bash command in the working directory, inside the sandbox. Its standard output and
# ollie:description standard error come back together; a non-zero exit status is reported as an error.
# ollie:param command string required  The command line, as bash reads it
# ollie:timeout 600
exec bash -c "$OLLIE_ARG_COMMAND" </dev/null 2>&1
