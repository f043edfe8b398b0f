// A logger that keeps what it is given, for asserting on log lines (the services' logger is a port).
import type { Logger } from '../../src/llm/index.js';

export interface LogLine {
  level: 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

export class RecordingLogger implements Logger {
  readonly lines: LogLine[] = [];

  warn(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ level: 'warn', fields, message });
  }

  error(fields: Record<string, unknown>, message: string): void {
    this.lines.push({ level: 'error', fields, message });
  }

  /** The lines about one conversation. */
  about(conversationId: string): LogLine[] {
    return this.lines.filter((l) => l.fields.conversation_id === conversationId);
  }

  /** Everything logged, as one text (to check that a secret never appears). */
  text(): string {
    return JSON.stringify(this.lines);
  }
}
