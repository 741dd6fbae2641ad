package io.walshadow.e2e;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/** The messages one logger of this JVM writes while open (the lines a person reads on the console). */
final class CapturedLog implements AutoCloseable {
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final LoggerConfig config;
    private final AbstractAppender appender;

    CapturedLog(String logger) {
        appender = new AbstractAppender("captured-" + logger + "-" + System.nanoTime(), null, null, true,
                Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                if (event.getLoggerName().equals(logger)) {
                    lines.add(event.getMessage().getFormattedMessage());
                }
            }
        };
        appender.start();
        config = context.getConfiguration().getLoggerConfig(logger);
        config.addAppender(appender, null, null);
        context.updateLoggers();
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    /** Waits up to {@code timeoutMs} for a line after the first {@code seen}; null if none came. */
    String next(int seen, long timeoutMs) throws InterruptedException {
        long until = System.currentTimeMillis() + timeoutMs;
        while (lines.size() <= seen && System.currentTimeMillis() < until) {
            Thread.sleep(50);
        }
        return lines.size() > seen ? lines.get(seen) : null;
    }

    @Override
    public void close() {
        config.removeAppender(appender.getName());
        appender.stop();
        context.updateLoggers();
    }
}
