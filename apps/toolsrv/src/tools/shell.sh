#!/bin/sh
# ollie:tool shell
# ollie:description Run a bash command in the working directory, inside the sandbox. Its standard output and
# ollie:description standard error come back together; a non-zero exit status is reported as an error.
# ollie:description With background: true it is started in the background and answered at once with its
# ollie:description process id (for servers, watchers, long builds): read its output with process_output,
# ollie:description end it with process_kill. A background command runs for an hour at most.
# ollie:param command string required  The command line, as bash reads it
# ollie:param background boolean  Start it in the background and answer at once with its process id
# ollie:timeout 600
# ollie:background background 3600
exec bash -c "$OLLIE_ARG_COMMAND" </dev/null 2>&1
