export { isInternalHost, isLoopbackHost } from './hosts.js';
