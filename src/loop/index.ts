export { LoopTurns, loopTurns, type TurnPriority } from './turns.js';
