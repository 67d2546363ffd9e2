// A question-answering Task over lazily loaded examples (the file read once, on first use).
import { UserError } from '../../errors.js';
import type { Split } from '../types.js';
import type { Example, Score, Task, TaskName } from './types.js';
import type { Examples } from './datasets.js';
import { SplitTable, type SplitDef } from './splits.js';

export interface QATaskSpec {
  name: TaskName;
  observationLabel: 'Question' | 'Claim';
  dataFile: string;
  load(): Examples;
  splits(task: QATask): SplitDef[];
  score(prediction: string | null | undefined, gold: string): Score;
}

export class QATask implements Task {
  readonly name: TaskName;
  readonly observationLabel: 'Question' | 'Claim';
  readonly dataFile: string;
  private examples?: Examples;
  private table?: SplitTable;

  constructor(private readonly spec: QATaskSpec) {
    this.name = spec.name;
    this.observationLabel = spec.observationLabel;
    this.dataFile = spec.dataFile;
  }

  private data(): Examples {
    return (this.examples ??= this.spec.load());
  }

  private splitTable(): SplitTable {
    return (this.table ??= new SplitTable(this.name, this.spec.splits(this)));
  }

  get size(): number {
    return this.data().size;
  }

  example(index: number): Example {
    const data = this.data();
    if (!Number.isInteger(index) || index < 0 || index >= data.size) {
      throw new UserError(`${this.name}: index ${index} is out of range (expected an integer in 0..${data.size - 1})`);
    }
    return data.at(index);
  }

  splitNames(): string[] {
    return this.splitTable().names();
  }

  splitDescription(name: string): string {
    return this.splitTable().describe(name);
  }

  split(name: string, opts?: { limit?: number }): Split {
    return this.splitTable().get(name, opts);
  }

  score(prediction: string | null | undefined, gold: string): Score {
    return this.spec.score(prediction, gold);
  }

  /** Fails when a split drawn over the first `needed` examples meets a shorter data file. */
  requireSize(needed: number, split: string): void {
    if (this.size < needed) {
      throw new UserError(`${this.dataFile}: split ${split} needs at least ${needed} examples, the file has ${this.size}`);
    }
  }
}

/** 0..n-1 in file order. */
export function fileOrder(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
