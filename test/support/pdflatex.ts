// Where pdflatex is (null when it is not installed: the LaTeX compile tests are skipped then).
import { execFileSync } from 'node:child_process';

function which(cmd: string): string | null {
  try {
    return execFileSync('which', [cmd], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export const PDFLATEX = which('pdflatex');
