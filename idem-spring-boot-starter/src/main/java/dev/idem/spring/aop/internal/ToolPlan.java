package dev.idem.spring.aop.internal;

/**
 * What the advice knows of a Spring AI tool method.
 *
 * @param name the tool's name, as an MCP call names it
 * @param keyFromCall whether its key is the one its call sends (the method names no key expression)
 *     rather than one the application names, which may name the effect itself
 */
public record ToolPlan(String name, boolean keyFromCall) {}
