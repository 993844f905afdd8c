// @ollie/agent-core/config: agent profiles on disk (JSON validated with zod) and prompts made by running
// shell commands. Kept apart from the main entry because it reads files and starts processes.

export {};
