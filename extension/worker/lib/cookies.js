// Cookies of one URL through chrome.cookies (httpOnly ones included, which page scripts cannot see).

/** The URL chrome.cookies needs to set or remove cookie `c`. */
function cookieUrl(c) {
  return `http${c.secure ? 's' : ''}://${c.domain.replace(/^\./, '')}${c.path || '/'}`;
}

/** Every cookie the browser would send to `url`, with what it takes to set it again. */
export async function cookiesFor(url) {
  const all = await chrome.cookies.getAll({ url });
  return all.map((c) => ({
    name: c.name,
    value: c.value,
    domain: c.domain,
    hostOnly: c.hostOnly,
    path: c.path,
    secure: c.secure,
    httpOnly: c.httpOnly,
    sameSite: c.sameSite,
    session: c.session,
    expirationDate: c.expirationDate,
    storeId: c.storeId,
  }));
}

/** Remove every cookie the browser would send to `url`; answers how many. */
export async function clearCookies(url) {
  const all = await chrome.cookies.getAll({ url });
  await Promise.all(all.map((c) => chrome.cookies.remove({ url: cookieUrl(c), name: c.name, storeId: c.storeId })));
  return all.length;
}

/** Set saved cookies again; answers how many the browser took. */
export async function restoreCookies(cookies) {
  let restored = 0;
  for (const c of cookies) {
    const details = {
      url: cookieUrl(c),
      name: c.name,
      value: c.value,
      path: c.path,
      secure: c.secure,
      httpOnly: c.httpOnly,
      sameSite: c.sameSite,
      storeId: c.storeId,
    };
    if (!c.hostOnly) details.domain = c.domain;
    if (!c.session && c.expirationDate) details.expirationDate = c.expirationDate;
    if (await chrome.cookies.set(details).catch(() => null)) restored += 1;
  }
  return restored;
}
