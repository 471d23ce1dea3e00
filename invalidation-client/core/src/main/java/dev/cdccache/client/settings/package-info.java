/**
 * The client's settings ({@code cdc.invalidation.*}) as one model: the catalogue
 * {@link dev.cdccache.client.settings.ClientSettings} lists every setting once and reads flat settings for every
 * front end (the Spring Boot starter, the Hibernate module, plain Java), so that a setting, its default and its
 * rules exist in one place.
 */
package dev.cdccache.client.settings;
