import { Errors } from '../core/errors.js';

// In identity, the lowest domain: users, organizations (owner email) and invitations all check an address.
const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function checkEmail(email: string, pointer: string): void {
  if (email.length > 255 || !EMAIL.test(email)) throw Errors.invalidEmail(pointer);
}
