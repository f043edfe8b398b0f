// Answers typed on stdin, a line each. Lines that come before a question waits are kept for it (a
// script may pipe all its answers at once); the end of stdin answers null. Not readline's terminal
// mode: Ctrl-C stays the terminal's signal, which pauses the conversation.
import { createInterface } from 'node:readline';

export class Answers {
  private readonly lines: string[] = [];
  private waiting: ((line: string | null) => void) | null = null;
  private closed = false;

  constructor(
    private readonly input: NodeJS.ReadStream = process.stdin,
    private readonly out: NodeJS.WriteStream = process.stdout,
  ) {
    const reader = createInterface({ input, terminal: false });
    reader.on('line', (line) => {
      if (this.waiting) this.take(line);
      else this.lines.push(line);
    });
    reader.on('close', () => {
      this.closed = true;
      this.take(null);
    });
  }

  private take(line: string | null): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.(line);
  }

  /** Writes the question and waits for the next line; a TTY echoes it, elsewhere it is written back. */
  async ask(question: string): Promise<string | null> {
    this.out.write(question);
    const line =
      this.lines.shift() ??
      (this.closed ? null : await new Promise<string | null>((resolve) => (this.waiting = resolve)));
    if (!this.input.isTTY) this.out.write(`${line ?? ''}\n`);
    return line;
  }
}
