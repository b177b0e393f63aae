package task

// The browser's getters that cannot run here are known so that tasks
// using them load; a task using one is skipped with its reason.
