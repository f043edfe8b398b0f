export { type ClusterOptions, ClusterOwnership } from './cluster.js';
export { LocalOwnership } from './local.js';
export {
  type Claim,
  type ForwardReply,
  type ForwardRequest,
  OwnedElsewhereError,
  type Ownership,
  type OwnershipHandlers,
  OwnerUnavailableError,
} from './types.js';
