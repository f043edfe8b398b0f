// The terminal the CLI writes to. On a TTY: colours (unless NO_COLOR is set) and a spinner on the
// last line while agentd works, erased before each line and at the end, with the cursor hidden
// meanwhile and shown again however the command ends. Piped: plain lines, nothing else.
import type { Line, Tone } from './format.js';

const TONES: Record<Tone, [string, string]> = {
  user: ['\x1b[2m', '\x1b[22m'],
  message: ['\x1b[1m', '\x1b[22m'],
  thought: ['\x1b[2;3m', '\x1b[22;23m'],
  action: ['\x1b[36m', '\x1b[39m'],
  output: ['', ''],
  error: ['\x1b[31m', '\x1b[39m'],
  note: ['\x1b[2m', '\x1b[22m'],
};
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const ERASE_LINE = '\r\x1b[2K';

export class Screen {
  readonly color: boolean;
  private readonly animate: boolean;
  private label: string | null = null;
  private frame = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly out: NodeJS.WriteStream = process.stdout,
    env: Record<string, string | undefined> = process.env,
  ) {
    const tty = out.isTTY === true;
    // https://no-color.org: present and not empty turns colours off.
    this.color = tty && !env.NO_COLOR;
    this.animate = tty;
    if (tty) process.once('exit', () => this.end());
  }

  paint(tone: Tone, text: string): string {
    if (!this.color) return text;
    const [on, off] = TONES[tone];
    return `${on}${text}${off}`;
  }

  /** Lines, above the spinner. */
  write(lines: Line[]): void {
    if (lines.length === 0) return;
    this.erase();
    for (const line of lines) this.out.write(`${this.paint(line.tone, line.text)}\n`);
    this.draw();
  }

  /** Shows the spinner with this label (a TTY only), or takes it away with null. */
  busy(label: string | null): void {
    if (!this.animate || label === this.label) return;
    this.erase();
    this.label = label;
    if (label === null) {
      if (this.timer) clearInterval(this.timer);
      this.timer = null;
      this.out.write(SHOW_CURSOR);
      return;
    }
    if (!this.timer) {
      this.out.write(HIDE_CURSOR);
      this.timer = setInterval(() => {
        this.frame = (this.frame + 1) % FRAMES.length;
        this.erase();
        this.draw();
      }, 80);
    }
    this.draw();
  }

  /** Stops the spinner and leaves the terminal as it was found. */
  end(): void {
    this.busy(null);
  }

  private draw(): void {
    if (this.label !== null) this.out.write(this.paint('note', `${FRAMES[this.frame]} ${this.label}`));
  }

  private erase(): void {
    if (this.label !== null) this.out.write(ERASE_LINE);
  }
}
