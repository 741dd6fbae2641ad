package io.walshadow.testing;

import java.io.PrintStream;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Frames every test's log lines with a start and an end line (registered for every test by JUnit's extension
 * autodetection, {@code META-INF/services}). A test that injects failures on purpose ({@link ExpectedFaults}) says
 * so in its start line: the WARN / ERROR lines and stack traces up to its end line are the faults it made, not
 * problems, unless the end line says it failed. Server-tier logs go to {@code target/failsafe-reports/*-output.txt}.
 */
public final class TestBanner implements BeforeTestExecutionCallback, AfterTestExecutionCallback {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss,SSS");
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(TestBanner.class);

    @Override
    public void beforeTestExecution(ExtensionContext context) {
        context.getStore(NS).put("start", System.nanoTime());
        String faults = expectedFaults(context);
        line("TEST " + name(context) + (faults == null ? "" : " injects faults on purpose (" + faults
                + "): the WARN / ERROR lines and stack traces up to its END line are expected"));
    }

    @Override
    public void afterTestExecution(ExtensionContext context) {
        Long start = context.getStore(NS).get("start", Long.class);
        long seconds = start == null ? 0 : (System.nanoTime() - start) / 1_000_000_000L;
        String outcome = context.getExecutionException()
                .map(e -> "FAILED: " + e.getClass().getSimpleName())
                .orElse("passed");
        line("END " + name(context) + " " + outcome + " in " + seconds + " s");
    }

    private static String expectedFaults(ExtensionContext context) {
        ExpectedFaults onMethod = context.getTestMethod().map(m -> m.getAnnotation(ExpectedFaults.class)).orElse(null);
        if (onMethod != null) {
            return onMethod.value();
        }
        ExpectedFaults onClass = context.getTestClass().map(c -> c.getAnnotation(ExpectedFaults.class)).orElse(null);
        return onClass == null ? null : onClass.value();
    }

    private static String name(ExtensionContext context) {
        String cls = context.getTestClass().map(Class::getSimpleName).orElse("?");
        return cls + "." + context.getDisplayName();
    }

    private static void line(String text) {
        PrintStream out = System.out;
        out.println(LocalTime.now().format(TIME) + " ===== " + text + " =====");
        out.flush();
    }
}
