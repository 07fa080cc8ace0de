/** What an operator may do from the console when cxc.console.actions=true: one class per action. */
@NullMarked
package io.subetha.cxc.console.action;

import org.jspecify.annotations.NullMarked;
