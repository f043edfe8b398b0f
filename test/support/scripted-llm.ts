// The scripted LLM server (src/llm/scripted) for tests: start one per test file.
export { type RecordedRequest, type Script, ScriptedLLM, type ScriptStep } from '../../src/llm/index.js';
