// Barrel of this feature folder; its owner fills it in.
export {};
