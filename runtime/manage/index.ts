/** Endpoint management: a programmatic manager and the Web-standard HTTP handler on top of it. */
export {
  type Authorize,
  type AuthorizeResult,
  type Caller,
  unsafeAllowAnyone,
} from './authorize.js';
export {
  createEndpointManager,
  DEFAULT_ROTATION_OVERLAP_MS,
  type EndpointManager,
  type EndpointManagerOptions,
  type EndpointView,
  type RegisterInput,
  toEndpointView,
  type UpdateInput,
} from './endpoints.js';
export { createManagementHandler, type ManagementHandlerOptions } from './handler.js';
export {
  DEFAULT_VERIFICATION_TIMEOUT_MS,
  VERIFICATION_EVENT,
  type VerificationOption,
} from './verify-endpoint.js';
