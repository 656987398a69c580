import { describe, expect, it } from 'vitest';
import { budgetedSize } from './time-budget.js';

describe('budgetedSize', () => {
  it('starts at the maximum, shrinks in proportion to an overrun and not below the floor', () => {
    const size = budgetedSize(100, { min: 10, budgetMs: 2 });
    expect(size.size).toBe(100);
    size.took(4);
    expect(size.size).toBe(50);
    size.took(1000);
    expect(size.size).toBe(10);
    size.took(1000);
    expect(size.size).toBe(10);
  });

  it('grows back while batches run well under the budget, up to the maximum', () => {
    const size = budgetedSize(100, { min: 10, start: 10, budgetMs: 2 });
    const seen: number[] = [];
    for (let i = 0; i < 12; i++) {
      size.took(0.5);
      seen.push(size.size);
    }
    expect(seen[0]).toBe(15);
    expect(seen.at(-1)).toBe(100);
    expect(seen.every((s, i) => i === 0 || s >= (seen[i - 1] as number))).toBe(true);
  });

  it('keeps its size inside the budget band, and shrinks by one at least on any overrun', () => {
    const size = budgetedSize(100, { budgetMs: 2 });
    size.took(1.5);
    expect(size.size).toBe(100);
    size.took(2.01);
    expect(size.size).toBe(99);
  });

  it('never goes above a maximum below the floor', () => {
    const size = budgetedSize(1, { min: 10 });
    size.took(0);
    expect(size.size).toBe(1);
  });
});
