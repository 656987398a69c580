import { memoryStore } from './memory.js';
import { runStoreSuite } from './store-suite.js';

runStoreSuite('memory', { create: () => memoryStore() });
