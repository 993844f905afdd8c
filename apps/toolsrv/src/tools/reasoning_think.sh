#!/bin/sh
# ollie:tool reasoning_think
# ollie:description Think out loud: write down reasoning, a plan or a hypothesis before acting. Nothing runs;
# ollie:description the thought stays in the conversation.
# ollie:param thought string required  The reasoning
# ollie:parallel read
# ollie:timeout 10
echo "noted"
