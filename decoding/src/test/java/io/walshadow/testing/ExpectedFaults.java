package io.walshadow.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Says which failures a test injects on purpose (killed servers, failing sinks, cancelled jobs), so that
 * {@link TestBanner} labels the WARN / ERROR lines and stack traces they cause in the test log as expected.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@Inherited
public @interface ExpectedFaults {
    /** What is injected, in a few words ("PostgreSQL killed mid-stream, the job restored from its checkpoint"). */
    String value();
}
