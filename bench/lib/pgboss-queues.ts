/**
 * The pg-boss queues of bench:send's PostgreSQL rows, shared by the bench and its worker processes.
 * Warm-up jobs go to a queue (a partition) of their own: pg-boss keeps finished jobs in the queue's
 * partition, and the measured queue starts empty as it would without a warm-up.
 */
export const PGBOSS_QUEUE = 'bench';
export const PGBOSS_WARMUP_QUEUE = 'bench-warmup';
