/** Actuator support of the starter that is not health: keeping the client's secrets out of /env and /configprops. */
package dev.cdccache.client.spring.actuate;
