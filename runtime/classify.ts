// Owned by the runtime-core work; filled in there.
export {};
