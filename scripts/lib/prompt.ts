import readline from 'node:readline';
import { Writable } from 'node:stream';
import { CliError } from './cli.ts';

/**
 * Reads all of stdin (for --password-stdin). Only the one line break that `echo`
 * or a here-string adds is dropped: any other whitespace belongs to the password.
 */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * Asks a question on the terminal without echoing the answer. readline writes
 * the keystrokes it echoes to its output stream; that stream drops everything
 * while the answer is typed, so only the question itself reaches the screen.
 * The prompt goes to stderr, keeping stdout for the command's result.
 */
export function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let muted = false;
    const output = new Writable({
      write(chunk: Buffer, encoding: BufferEncoding, done: () => void) {
        if (!muted) process.stderr.write(chunk, encoding);
        done();
      },
    });
    const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
    let answered = false;
    rl.on('SIGINT', () => {
      rl.close();
    });
    rl.on('close', () => {
      process.stderr.write('\n');
      if (!answered) reject(new CliError('Cancelled.', 130));
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(answer);
    });
    muted = true;
  });
}
