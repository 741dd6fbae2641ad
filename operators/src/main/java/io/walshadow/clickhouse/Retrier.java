package io.walshadow.clickhouse;

import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retries ClickHouse calls that failed for a reason a later attempt can get past (no answer, a transient server
 * error), with exponential backoff, for at most {@code timeout}; then, or at once for any other error, the last
 * error is thrown. Nothing is dropped: the caller fails, and the job restarts from its last checkpoint.
 */
public final class Retrier {
    private static final Logger LOG = LoggerFactory.getLogger(Retrier.class);
    private static final long FIRST_BACKOFF_MS = 100;
    private static final long MAX_BACKOFF_MS = 5_000;

    private final Duration timeout;
    private final Runnable onRetry;

    /** @param onRetry called before each retry (a metric) */
    public Retrier(Duration timeout, Runnable onRetry) {
        this.timeout = timeout;
        this.onRetry = onRetry == null ? () -> { } : onRetry;
    }

    public <T> T call(String what, Supplier<T> action) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long backoff = FIRST_BACKOFF_MS;
        int attempt = 1;
        while (true) {
            try {
                return action.get();
            } catch (ClickHouseException e) {
                long left = deadline - System.nanoTime();
                if (!e.retryable() || left <= 0) {
                    throw new ClickHouseException(what, (e.retryable() ? "still failing after " + attempt
                            + " attempts in " + timeout.toSeconds() + " s: " : "") + e.getMessage(), e);
                }
                LOG.warn("{} failed (attempt {}), retrying in {} ms: {}", what, attempt, backoff, e.getMessage());
                onRetry.run();
                Thread.sleep(Math.min(backoff, Math.max(1, left / 1_000_000)));
                backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
                attempt++;
            }
        }
    }

    public void run(String what, Runnable action) throws InterruptedException {
        call(what, () -> {
            action.run();
            return null;
        });
    }
}
