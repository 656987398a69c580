/** Endpoint management: a programmatic manager and the Web-standard HTTP handler on top of it. */
export {
  createEndpointManager,
  DEFAULT_ROTATION_OVERLAP_MS,
  type EndpointManager,
  type EndpointManagerOptions,
  type EndpointView,
  type RegisterInput,
  toEndpointView,
} from './endpoints.js';
export { createManagementHandler, type ManagementHandlerOptions } from './handler.js';
