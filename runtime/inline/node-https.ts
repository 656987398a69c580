/** node:https as the runtime's sender uses it (see `node.ts`). */

import { builtin } from './node.js';
import type { HttpModule } from './node-http.js';

const https = builtin<HttpModule>('node:https');
export default https;
